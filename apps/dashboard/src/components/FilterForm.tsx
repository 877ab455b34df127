import { Button, Group, Paper, Select, TextInput } from '@mantine/core';
import { type ReactNode, useState } from 'react';
import type { z } from 'zod';
import { localInputToTimestamp, timestampToLocalInput } from '../forms/datetime';
import { checkForm, type FieldErrors, optionalText } from '../forms/schema';
import { AppForm } from './AppForm';

/**
 * One filter of a list: a choice among `options`, free text (`upper`: a currency code), or a
 * bound of a time range (`bound`) entered in the viewer's time zone and sent as an instant.
 */
export interface FilterField {
  name: string;
  label: string;
  options?: readonly string[];
  placeholder?: string;
  upper?: boolean;
  bound?: 'from' | 'until';
  width?: number;
}

/** A creation-time range's two fields, as every record list names them (createdRangeQueryShape). */
export const CREATED_RANGE_FIELDS = [
  { name: 'createdFrom', label: 'Created from', bound: 'from' },
  { name: 'createdTo', label: 'Created before', bound: 'until' },
] as const satisfies readonly FilterField[];

const BOUND_DESCRIPTIONS = { from: 'Your time zone, inclusive', until: 'Your time zone, exclusive' } as const;

function enteredValue(field: FilterField, value: string): string | undefined {
  if (field.bound) return localInputToTimestamp(value);
  const text = optionalText(value);
  return field.upper ? text?.toUpperCase() : text;
}

const anyOf = (values: readonly string[]) => [{ value: '', label: 'Any' }, ...values.map((value) => ({ value, label: value }))];

function initialValues(fields: readonly FilterField[], filters: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    fields.map((field) => {
      const value = typeof filters[field.name] === 'string' ? (filters[field.name] as string) : '';
      return [field.name, field.bound ? timestampToLocalInput(value || undefined) : value];
    }),
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
  /** Beside the form's buttons: what acts on the applied filters (an export). */
  extra?: ReactNode;
}) {
  const [values, setValues] = useState(() => initialValues(props.fields, props.filters));
  const [errors, setErrors] = useState<FieldErrors>({});
  const set = (name: string, value: string) => setValues((current) => ({ ...current, [name]: value }));
  // What the address holds beside the form's fields (the list's order) stays as the filters change.
  const kept = Object.fromEntries(Object.entries(props.filters).filter(([name]) => !props.fields.some((field) => field.name === name)));
  const apply = () => {
    const entered = Object.fromEntries(props.fields.map((field) => [field.name, enteredValue(field, values[field.name] ?? '')]));
    const checked = checkForm(props.schema, entered as z.input<Schema>);
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    props.onApply({ ...kept, ...checked.value });
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
                type={field.bound ? 'datetime-local' : undefined}
                description={field.bound ? BOUND_DESCRIPTIONS[field.bound] : undefined}
                value={values[field.name] ?? ''}
                onChange={(event) => set(field.name, event.currentTarget.value)}
                w={field.width}
                error={errors[field.name]}
              />
            ),
          )}
          <Button type="submit">Search</Button>
          <Button variant="subtle" onClick={() => props.onApply(kept as z.output<Schema>)}>
            Clear
          </Button>
          {props.extra}
        </Group>
      </AppForm>
    </Paper>
  );
}
