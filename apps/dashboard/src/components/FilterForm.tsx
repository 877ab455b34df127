import { Button, Group, Paper, Select, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { z } from 'zod';
import { checkForm, type FieldErrors, optionalText } from '../forms/schema';
import { AppForm } from './AppForm';

/** One filter of a list: a choice among `options`, or free text (`upper`: a currency code). */
export interface FilterField {
  name: string;
  label: string;
  options?: readonly string[];
  placeholder?: string;
  upper?: boolean;
  width?: number;
}

const anyOf = (values: readonly string[]) => [{ value: '', label: 'Any' }, ...values.map((value) => ({ value, label: value }))];

function initialValues(fields: readonly FilterField[], filters: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    fields.map((field) => [field.name, typeof filters[field.name] === 'string' ? (filters[field.name] as string) : '']),
  );
}

/**
 * A list's filter form: empty fields are left out, the rest checked by the schema of the list's
 * query (the server's own rules) before they become the URL's search.
 */
export function FilterForm<Schema extends z.ZodObject>(props: {
  label: string;
  schema: Schema;
  fields: readonly FilterField[];
  filters: z.output<Schema>;
  onApply: (filters: z.output<Schema>) => void;
}) {
  const [values, setValues] = useState(() => initialValues(props.fields, props.filters));
  const [errors, setErrors] = useState<FieldErrors>({});
  const set = (name: string, value: string) => setValues((current) => ({ ...current, [name]: value }));
  const apply = () => {
    const entered = Object.fromEntries(
      props.fields.map((field) => [
        field.name,
        field.upper ? optionalText(values[field.name] ?? '')?.toUpperCase() : optionalText(values[field.name] ?? ''),
      ]),
    );
    const checked = checkForm(props.schema, entered as z.input<Schema>);
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    props.onApply(checked.value);
  };
  return (
    <Paper withBorder p="sm" mb="md" component="search" aria-label={props.label}>
      <AppForm onSubmit={apply}>
        <Group align="flex-end" wrap="wrap">
          {props.fields.map((field) =>
            field.options ? (
              <Select
                key={field.name}
                label={field.label}
                data={anyOf(field.options)}
                value={values[field.name] ?? ''}
                onChange={(value) => set(field.name, value ?? '')}
                allowDeselect={false}
                w={field.width ?? 150}
                error={errors[field.name]}
              />
            ) : (
              <TextInput
                key={field.name}
                label={field.label}
                placeholder={field.placeholder}
                value={values[field.name] ?? ''}
                onChange={(event) => set(field.name, event.currentTarget.value)}
                w={field.width}
                error={errors[field.name]}
              />
            ),
          )}
          <Button type="submit">Search</Button>
          <Button variant="subtle" onClick={() => props.onApply({} as z.output<Schema>)}>
            Clear
          </Button>
        </Group>
      </AppForm>
    </Paper>
  );
}
