import { Alert, Button, PasswordInput, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, useNavigate, useRouter } from '@tanstack/react-router';
import { type Environment, type LoginBody, loginBodySchema } from '@wallet/contracts';
import { useEffect, useState } from 'react';
import { dashboardAuthRoutes } from '../api/auth-routes';
import { api } from '../api/browser';
import { isApiError } from '../api/errors';
import { ErrorState } from '../components/States';
import { checkForm, type FieldErrors, optionalText } from '../forms/schema';
import { AuthLayout } from './AuthLayout';
import { AppForm } from '../components/AppForm';

/**
 * One message for every wrong-credential case: saying which part was wrong (unknown address,
 * wrong password, not a member of that organization) would tell an attacker which addresses exist.
 */
const WRONG_CREDENTIALS = 'Those sign-in details are not right. Check the email, password and organization, then try again.';

const routeApi = getRouteApi('/login');

export function LoginPage() {
  const { redirect } = routeApi.useSearch();
  const navigate = useNavigate();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [tenantSlug, setTenantSlug] = useState('');
  const [environment, setEnvironment] = useState<Environment>('live');
  const [errors, setErrors] = useState<FieldErrors>({});
  useEffect(() => {
    document.title = 'Sign in · Wallet dashboard';
  }, []);

  const login = useMutation({
    mutationFn: (body: LoginBody) => api.call(dashboardAuthRoutes.login, { body }),
    meta: { handlesUnauthorized: true },
    onSuccess: async () => {
      // A new session: nothing read under another one may show.
      queryClient.clear();
      // The page the session ran out on, with its search: a path of this app (the route's search schema says so).
      if (redirect) router.history.push(redirect);
      else await navigate({ to: '/' });
    },
  });

  const submit = () => {
    const checked = checkForm(loginBodySchema, { email, password, tenantSlug: optionalText(tenantSlug), environment });
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    login.mutate(checked.value);
  };

  return (
    <AuthLayout title="Sign in">
      <AppForm noValidate onSubmit={submit}>
        <Stack>
          <TextInput
            label="Email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
            error={errors.email}
          />
          <PasswordInput
            label="Password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
            error={errors.password}
          />
          <TextInput
            label="Organization"
            description="Its short name, only if your email belongs to several organizations"
            autoComplete="organization"
            value={tenantSlug}
            onChange={(event) => setTenantSlug(event.currentTarget.value)}
            error={errors.tenantSlug}
          />
          <Stack gap={4}>
            <Text size="sm" fw={500} id="environment-label">
              Environment
            </Text>
            <SegmentedControl
              aria-labelledby="environment-label"
              value={environment}
              onChange={(value) => setEnvironment(value as Environment)}
              data={[
                { label: 'Live', value: 'live' },
                { label: 'Test', value: 'test' },
              ]}
            />
          </Stack>
          {login.isError &&
            (isApiError(login.error, 'INVALID_CREDENTIALS') ? (
              <Alert color="red" role="alert" title="Could not sign in">
                {WRONG_CREDENTIALS}
              </Alert>
            ) : (
              <ErrorState error={login.error} title="Could not sign in" />
            ))}
          <Button type="submit" loading={login.isPending} fullWidth>
            Sign in
          </Button>
        </Stack>
      </AppForm>
    </AuthLayout>
  );
}
