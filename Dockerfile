# One image for all six processes; SERVICE picks which one runs.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json tsconfig.json ./
COPY shared/package.json shared/
COPY services/gateway/package.json services/gateway/
COPY services/accounts/package.json services/accounts/
COPY services/community/package.json services/community/
COPY services/houses/package.json services/houses/
COPY services/records/package.json services/records/
COPY services/notifications/package.json services/notifications/
RUN npm ci
COPY shared shared
COPY services services
RUN npx tsc -b && npm prune --omit=dev

FROM node:20-bookworm-slim
ARG SERVICE
ENV NODE_ENV=production SERVICE=${SERVICE} HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app /app
USER node
CMD ["sh", "-c", "exec node services/${SERVICE}/dist/main.js"]
