import { Alert, Button, CopyButton, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import type { RevealedSecret } from '../format/api-keys';

/**
 * The one time a key's secret is on screen. It lives only in the state of the component that
 * asked for it (never a query cache, never web storage) and is gone once this dialog closes:
 * the caller drops it in `onClose`, and the closed modal unmounts its content. `toRotate` names what
 * a lost secret is renewed by rotating (a key, a webhook endpoint's secret).
 */
export function SecretOnceModal({
  keyName,
  secret,
  onClose,
  toRotate = 'the key',
}: {
  keyName: string;
  secret: RevealedSecret | null;
  onClose: () => void;
  toRotate?: string;
}) {
  return (
    <Modal
      opened={secret !== null}
      onClose={onClose}
      title={`${secret?.label ?? 'Secret'} of ${keyName}`}
      closeOnClickOutside={false}
      size="lg"
      centered
    >
      {secret && (
        <Stack>
          <Alert color="yellow" title="Copy it now: it is shown only this once">
            <Text size="sm">
              Keep it in your secret store. The platform keeps no copy it can show again; if it is lost, rotate {toRotate} to get a new one.
            </Text>
          </Alert>
          <TextInput
            label={secret.label}
            value={secret.value}
            readOnly
            ff="monospace"
            autoComplete="off"
            spellCheck={false}
            onFocus={(event) => event.currentTarget.select()}
            rightSectionWidth={80}
            rightSection={
              <CopyButton value={secret.value}>
                {({ copied, copy }) => (
                  <Button size="compact-xs" variant={copied ? 'filled' : 'light'} color={copied ? 'teal' : undefined} onClick={copy}>
                    {copied ? 'Copied' : 'Copy'}
                  </Button>
                )}
              </CopyButton>
            }
          />
          <Group justify="flex-end">
            <Button onClick={onClose} data-autofocus>
              I have stored it
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
