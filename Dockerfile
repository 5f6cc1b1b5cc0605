# One Dockerfile for all six processes; the SERVICE build arg picks which one an image runs, and the image
# holds only that workspace's and shared's production dependencies and compiled code.
# Node 24 is the Active LTS line; scripts/ci-node-lts.sh runs the test suite on the same version.
# Where no registry can be reached, scripts/containers/make-bases.sh makes the same base locally:
#   --build-arg NODE_IMAGE=binzip-local/node:24.21.0-bookworm-slim
# Six images share the `build` stage (built once, then cached) and each adds one small layer of its own
# (docs/containers.md, "Image sizes").
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

# Every workspace's code compiled once, for all six images (no SERVICE here, so the stage's cache is shared).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json tsconfig.json ./
COPY shared/package.json shared/
COPY events/package.json events/
# services:render begin build-packages
COPY services/gateway/package.json services/gateway/
COPY services/accounts/package.json services/accounts/
COPY services/community/package.json services/community/
COPY services/houses/package.json services/houses/
COPY services/records/package.json services/records/
COPY services/notifications/package.json services/notifications/
# services:render end build-packages
COPY api-client/package.json api-client/
COPY admin-console/package.json admin-console/
RUN --mount=type=cache,id=binzip-npm,target=/root/.npm npm ci --no-audit --no-fund
COPY shared shared
COPY events events
COPY services services
COPY api-client api-client
COPY admin-console admin-console
RUN npx tsc -b && npm run build -w api-client && npm run build -w admin-console

# Production dependencies of one workspace and shared, nothing else (no dev tools, no other service's
# libraries). bcrypt (accounts) loads its bundled N-API prebuild, so no compiler is needed here.
FROM ${NODE_IMAGE} AS runtime-deps
ARG SERVICE
# services:render begin runtime-check
RUN case "${SERVICE}" in gateway|accounts|community|houses|records|notifications) ;; \
    *) echo "build with --build-arg SERVICE=<gateway|accounts|community|houses|records|notifications>" >&2; exit 1 ;; esac
# services:render end runtime-check
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/shared/package.json shared/
COPY --from=build /app/events/package.json events/
# services:render begin runtime-packages
COPY --from=build /app/services/gateway/package.json services/gateway/
COPY --from=build /app/services/accounts/package.json services/accounts/
COPY --from=build /app/services/community/package.json services/community/
COPY --from=build /app/services/houses/package.json services/houses/
COPY --from=build /app/services/records/package.json services/records/
COPY --from=build /app/services/notifications/package.json services/notifications/
# services:render end runtime-packages
COPY --from=build /app/api-client/package.json api-client/
COPY --from=build /app/admin-console/package.json admin-console/
RUN --mount=type=cache,id=binzip-npm,target=/root/.npm npm ci --omit=dev --prefer-offline --no-audit --no-fund -w "services/${SERVICE}" -w shared -w events \
    && rm -rf services/*/package.json.tmp
COPY --from=build /app/shared/dist shared/dist
COPY --from=build /app/events/dist events/dist
COPY --from=build /app/services/${SERVICE}/dist services/${SERVICE}/dist
# The administrators' console (static files) is the gateway's to serve at /admin, and so are the API document's
# recorded examples (contracts/examples); other images leave them out.
COPY --from=build /app/admin-console/dist /tmp/admin-console-dist
COPY contracts/examples /tmp/api-examples
RUN if [ "${SERVICE}" = gateway ]; then mv /tmp/admin-console-dist admin-console/dist && mkdir -p contracts && mv /tmp/api-examples contracts/examples; \
    else rm -rf /tmp/admin-console-dist /tmp/api-examples; fi

FROM ${NODE_IMAGE}
ARG SERVICE
# The service's release: the `version` of services/${SERVICE}/package.json, which /health answers too (one source;
# scripts/lib/release.ts passes it, and the container test checks the two agree). REVISION: the commit built.
ARG VERSION=unknown
ARG REVISION=unknown
LABEL org.opencontainers.image.title="binzip-${SERVICE}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.description="binzip ${SERVICE} (one of the gateway and five services)"
# PORT here is the gateway's; compose sets each service's own. The health check reads the same variable.
ENV NODE_ENV=production SERVICE=${SERVICE} HOST=0.0.0.0 PORT=8080
# Node 24 sizes V8's young generation by the host's memory: on a large host the gateway's RSS under load went
# from ~140 to ~220 MiB with no gain in throughput (README, "Gateway figures"). 16 MiB semi-spaces, Node 20's
# size, keep every process's memory predictable; override NODE_OPTIONS to change it.
ENV NODE_OPTIONS=--max-semi-space-size=16
# glibc keeps what libvips' threads freed in per-thread arenas and trims only above 32 MiB: after two 50-megapixel
# uploads community kept ~180 MiB more than it needed. Two arenas and a 128 KiB trim threshold give it back
# (docs/benchmarks.md, "Attacks on the services"); nothing else in the processes notices.
ENV MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=131072
WORKDIR /app
COPY --from=runtime-deps /app /app
# The local SMS/e-mail senders' outbox when DEV_OUTBOX_DIR=/outbox (compose mounts a volume or a host folder here).
RUN mkdir /outbox && chown node:node /outbox
USER node
# Liveness only (/health); readiness (/ready: MongoDB and NATS) is for load balancers and orchestrators.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node is PID 1 and handles SIGTERM itself (drain, then the ordered stop: shared/src/core/lifecycle.ts).
CMD ["sh", "-c", "exec node services/${SERVICE}/dist/main.js"]
