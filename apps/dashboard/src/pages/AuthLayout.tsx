import { Container, Paper, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** The signed-out pages: one centred card in the page's main landmark. */
export function AuthLayout({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Container size={420} py="xl" component="main">
      <Title order={1} size="h2" ta="center" mb="lg">
        {title}
      </Title>
      <Paper withBorder shadow="sm" p="lg" radius="md">
        {children}
      </Paper>
    </Container>
  );
}
