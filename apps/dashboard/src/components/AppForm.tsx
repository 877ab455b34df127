import type { ComponentPropsWithoutRef } from 'react';

type AppFormProps = Omit<ComponentPropsWithoutRef<'form'>, 'onSubmit'> & { onSubmit: () => void };

/** A form that stays in the app: Enter or its submit button call `onSubmit`, and the page never reloads. */
export function AppForm({ onSubmit, ...props }: AppFormProps) {
  return (
    <form
      {...props}
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    />
  );
}
