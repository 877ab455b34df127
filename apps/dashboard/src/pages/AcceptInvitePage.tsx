import { Alert, Button, PasswordInput, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { type AcceptInviteBody, acceptInviteBodySchema, PASSWORD_MIN_LENGTH } from '@wallet/contracts';
import { useEffect, useState } from 'react';
import { dashboardAuthRoutes } from '../api/auth-routes';
import { api } from '../api/browser';
import { isApiError } from '../api/errors';
import { ErrorState } from '../components/States';
import { checkForm, type FieldErrors } from '../forms/schema';
import { AuthLayout } from './AuthLayout';
import { AppForm } from '../components/AppForm';

/** The invite link's page (`/accept-invite?token=...`): the invited member sets a password and is signed in. */
const routeApi = getRouteApi('/accept-invite');

export function AcceptInvitePage() {
  const { token } = routeApi.useSearch();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  useEffect(() => {
    document.title = 'Accept your invitation · Wallet dashboard';
  }, []);

  const accept = useMutation({
    mutationFn: (body: AcceptInviteBody) => api.call(dashboardAuthRoutes.acceptInvite, { body }),
    meta: { handlesUnauthorized: true },
    onSuccess: async () => {
      queryClient.clear();
      await navigate({ to: '/' });
    },
  });

  if (!token) {
    return (
      <AuthLayout title="Accept your invitation">
        <Alert color="red" role="alert" title="This link is incomplete">
          Open the link from your invitation email again, or ask your organization's admin for a new invitation.
        </Alert>
      </AuthLayout>
    );
  }

  const submit = () => {
    if (password !== confirmation) return setErrors({ confirmation: 'The two passwords differ' });
    const checked = checkForm(acceptInviteBodySchema, { token, password });
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    accept.mutate(checked.value);
  };

  return (
    <AuthLayout title="Accept your invitation">
      <AppForm noValidate onSubmit={submit}>
        <Stack>
          <Text size="sm">Choose the password you will sign in with.</Text>
          <PasswordInput
            label="New password"
            description={`At least ${PASSWORD_MIN_LENGTH} characters`}
            autoComplete="new-password"
            required
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
            error={errors.password}
          />
          <PasswordInput
            label="Repeat the password"
            autoComplete="new-password"
            required
            value={confirmation}
            onChange={(event) => setConfirmation(event.currentTarget.value)}
            error={errors.confirmation}
          />
          {errors.token && (
            <Alert color="red" role="alert">
              {errors.token}
            </Alert>
          )}
          {accept.isError &&
            (isApiError(accept.error, 'INVALID_INVITE_TOKEN') ? (
              <Alert color="red" role="alert" title="This invitation cannot be used">
                It has expired or was used already. Ask your organization's admin for a new invitation.
              </Alert>
            ) : (
              <ErrorState error={accept.error} title="Could not accept the invitation" />
            ))}
          <Button type="submit" loading={accept.isPending} fullWidth>
            Set password and sign in
          </Button>
        </Stack>
      </AppForm>
    </AuthLayout>
  );
}
