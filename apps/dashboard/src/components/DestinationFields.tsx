import { SimpleGrid, TextInput } from '@mantine/core';
import type { WithdrawalMethod } from '@wallet/contracts';
import { DESTINATION_FIELDS } from '../forms/destination';
import type { FieldErrors } from '../forms/schema';

/** The inputs of a payout's or withdrawal's destination for its method. */
export function DestinationFields({
  method,
  values,
  errors,
  onChange,
}: {
  method: WithdrawalMethod;
  values: Readonly<Record<string, string>>;
  errors: FieldErrors;
  onChange: (name: string, value: string) => void;
}) {
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }}>
      {DESTINATION_FIELDS[method].map((field) => (
        <TextInput
          key={field.name}
          label={field.label}
          required={!field.optional}
          placeholder={field.placeholder}
          value={values[field.name] ?? ''}
          onChange={(event) => onChange(field.name, event.currentTarget.value)}
          error={errors[field.name]}
        />
      ))}
    </SimpleGrid>
  );
}
