# One Dockerfile for all six processes; the SERVICE build arg picks which one an image runs, and the image
# holds only that workspace's and shared's production dependencies.
# Node 24 is the Active LTS line; scripts/ci-node-lts.sh runs the test suite on the same version.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json tsconfig.json ./
COPY shared/package.json shared/
COPY services/gateway/package.json services/gateway/
COPY services/accounts/package.json services/accounts/
COPY services/community/package.json services/community/
COPY services/houses/package.json services/houses/
COPY services/records/package.json services/records/
COPY services/notifications/package.json services/notifications/
COPY admin-console/package.json admin-console/
RUN npm ci
COPY shared shared
COPY services services
COPY admin-console admin-console
RUN npx tsc -b && npm run build -w admin-console

# Production dependencies of one workspace and shared, nothing else (no dev tools, no other service's
# libraries). bcrypt (accounts) loads its bundled N-API prebuild, so no compiler is needed here.
FROM ${NODE_IMAGE} AS runtime-deps
ARG SERVICE
RUN test -n "${SERVICE}" || (echo "build with --build-arg SERVICE=<gateway|accounts|community|houses|records|notifications>" && exit 1)
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/shared/package.json shared/
COPY --from=build /app/services/gateway/package.json services/gateway/
COPY --from=build /app/services/accounts/package.json services/accounts/
COPY --from=build /app/services/community/package.json services/community/
COPY --from=build /app/services/houses/package.json services/houses/
COPY --from=build /app/services/records/package.json services/records/
COPY --from=build /app/services/notifications/package.json services/notifications/
COPY --from=build /app/admin-console/package.json admin-console/
RUN npm ci --omit=dev -w "services/${SERVICE}" -w shared && npm cache clean --force
COPY --from=build /app/shared/dist shared/dist
COPY --from=build /app/services/${SERVICE}/dist services/${SERVICE}/dist
# The administrators' console (static files) is the gateway's to serve at /admin, and so are the API document's
# recorded examples (contracts/examples); other images leave them out.
COPY --from=build /app/admin-console/dist /tmp/admin-console-dist
COPY contracts/examples /tmp/api-examples
RUN if [ "${SERVICE}" = gateway ]; then mv /tmp/admin-console-dist admin-console/dist && mkdir -p contracts && mv /tmp/api-examples contracts/examples; \
    else rm -rf /tmp/admin-console-dist /tmp/api-examples; fi

FROM ${NODE_IMAGE}
ARG SERVICE
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
USER node
# Liveness only (/health); readiness (/ready: MongoDB and NATS) is for load balancers and orchestrators.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["sh", "-c", "exec node services/${SERVICE}/dist/main.js"]
