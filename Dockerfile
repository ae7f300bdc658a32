# Production image on the active Node.js LTS line (26): compiled JavaScript and production
# dependencies only (no TypeScript, no embedded PostgreSQL: it expects DATABASE_URL, see
# docker-compose.yml), run as a non-root user. The admin CLI runs in it:
#   docker compose exec app npm run -s cli -- tenant list --json

FROM node:26-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json nest-cli.json ormconfig.ts ./
COPY src ./src
RUN node node_modules/typescript/bin/tsc -p tsconfig.build.json

FROM node:26-bookworm-slim AS runtime-deps
WORKDIR /app
COPY package.json package-lock.json ./
# --omit=optional leaves out embedded-postgres and its PostgreSQL binaries (~60 MB), used only
# without DATABASE_URL; --omit=peer the TypeScript compiler that @nestjs/swagger and
# cosmiconfig list as an optional peer and npm would otherwise keep.
RUN npm ci --omit=dev --omit=optional --omit=peer && npm cache clean --force

FROM node:26-bookworm-slim
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0
WORKDIR /app
# Owned by root, readable by all: the service cannot change its own code or dependencies.
COPY package.json ./
COPY scripts ./scripts
COPY --from=runtime-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:3000/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# node directly (not npm) so SIGTERM reaches the process and shutdown is graceful; the V8
# heap flags of `npm start` (package.json): peak RSS under load stays near 160 MB instead of
# growing past 300 MB with V8's defaults on a large machine.
CMD ["node", "--max-old-space-size=256", "--max-semi-space-size=16", "--no-allocation-site-pretenuring", "dist/src/main.js"]
