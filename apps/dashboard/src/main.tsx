import '@mantine/core/styles.css';
import { MantineProvider } from '@mantine/core';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createQueryClient } from './api/query-client';
import { createAppRouter } from './app/router';
import { cssVariablesResolver, theme } from './app/theme';
import { configureJsonKindMessages } from '@wallet/contracts/zod-messages';

// The app's own forms say what came in JSON's words, as the services do.
configureJsonKindMessages();

// The query client sends a lost session to the login page; the router exists by the time any request fails.
const queryClient = createQueryClient(() => {
  if (router.state.location.pathname === '/login') return;
  void router.navigate({ to: '/login', search: { redirect: router.state.location.href } });
});
const router = createAppRouter(queryClient);

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
createRoot(container).render(
  <StrictMode>
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="auto">
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
