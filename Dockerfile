# syntax=docker/dockerfile:1
# The turnguard gateway as a container image (R12.5). Build from the repository root:
#   docker build -t turnguard-gateway .
# Run it: off loopback the gateway requires its own token (R8.9), and a container listens off loopback.
#   docker run -p 8787:8787 -e TURNGUARD_AUTH_TOKEN=… -e OPENAI_API_KEY=… turnguard-gateway
# deploy/compose.yaml runs two replicas with Prometheus scraping each.

# Build stage: the workspace's own build, packed the way `pnpm publish` packs it,
# so the image holds what `npm install @turnguard/gateway` installs (R10.4).
FROM node:20-slim AS build
WORKDIR /repo
ENV CI=true TURBO_TELEMETRY_DISABLED=1
COPY . .
RUN npx -y pnpm@12.4.2 install --frozen-lockfile \
 && npx -y pnpm@12.4.2 turbo run build --filter=@turnguard/gateway... \
 && mkdir /packs \
 && for dir in packages/core packages/adapter-chat packages/adapter-messages packages/adapter-responses packages/stats packages/testkit apps/gateway; do \
      (cd "$dir" && npx -y pnpm@12.4.2 pack --pack-destination /packs); \
    done

# Runtime stage: Node 20 slim, the packed gateway and its runtime dependencies, no build tools.
FROM node:20-slim
ENV NODE_ENV=production
WORKDIR /opt/turnguard
COPY --from=build /packs /tmp/packs
RUN echo '{"name":"turnguard-image","private":true}' > package.json \
 && npm install --omit=dev --no-audit --no-fund --ignore-scripts /tmp/packs/*.tgz \
 && rm -rf /tmp/packs /root/.npm \
 && mkdir -p /data && chown node:node /data
COPY deploy/healthcheck.mjs /opt/turnguard/healthcheck.mjs
ENV PATH=/opt/turnguard/node_modules/.bin:$PATH
# Listens on every interface, so a token is required (R8.9); stats go to the /data volume, one file per replica.
ENV TURNGUARD_HOST=0.0.0.0 \
    TURNGUARD_PORT=8787 \
    TURNGUARD_STATS_FILE=/data/stats.json \
    TURNGUARD_LOG_FORMAT=json
USER node
WORKDIR /home/node
VOLUME ["/data"]
EXPOSE 8787
# GET /healthz over loopback: it needs no token and passes the Host check (R8.9).
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 CMD ["node", "/opt/turnguard/healthcheck.mjs"]
ENTRYPOINT ["turnguard"]
CMD ["serve"]
