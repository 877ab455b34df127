# One image for all five services; SERVICE picks which one a container runs:
#   docker build --build-arg SERVICE=ledger .   or   docker run -e SERVICE=ledger <image>
FROM node:20-bookworm-slim

WORKDIR /app
ENV NODE_ENV=production

# Manifests first, so source changes do not reinstall dependencies.
COPY package.json package-lock.json .npmrc ./
COPY packages/contracts/package.json packages/contracts/
COPY packages/kit/package.json packages/kit/
COPY packages/money-commands/package.json packages/money-commands/
COPY services/gateway/package.json services/gateway/
COPY services/identity/package.json services/identity/
COPY services/ledger/package.json services/ledger/
COPY services/payments/package.json services/payments/
COPY services/treasury/package.json services/treasury/
COPY apps/dashboard/package.json apps/dashboard/
RUN npm ci --omit=dev && npm cache clean --force

# Each service is bundled into one file (scripts/build.ts, esbuild is a runtime dependency), and
# the dashboard is built into apps/dashboard/dist for the gateway (Vite is the app's dependency for that).
COPY tsconfig.base.json tsconfig.json ./
COPY packages packages
COPY services services
COPY apps apps
COPY scripts scripts
RUN npm run build

ARG SERVICE=gateway
# The young generation scripts/start.ts gives the services too: fewer scavenges per request.
ENV SERVICE=${SERVICE} HOST=0.0.0.0 NODE_OPTIONS=--max-semi-space-size=64
USER node
# exec: node replaces the shell, so it receives the stop signal itself. The preload starts
# tracing before the bundle loads, when OTEL_EXPORTER_OTLP_ENDPOINT is set.
CMD ["sh", "-c", "exec env OTEL_SERVICE_NAME=${OTEL_SERVICE_NAME:-$SERVICE} node --enable-source-maps --require ./dist/telemetry.js dist/${SERVICE}.js"]
