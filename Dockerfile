# One image for the API, the worker and the migrations (docker-compose.yml picks the command).
# It runs compiled JavaScript: no TypeScript, ts-node or workflow bundling at run time.

# Build: every dependency, then dist/ (compiled sources + the prebuilt workflow bundle).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY worker ./worker
COPY scripts ./scripts
# The embedded address lookup's gazetteer; the build copies it into dist/data/.
COPY data/address-lookup ./data/address-lookup
# The handlers' types, generated from the route table (src/http/contract.ts), before compiling.
COPY tools/openapi-client/package.json tools/openapi-client/package-lock.json ./tools/openapi-client/
RUN node scripts/openapi-client.mjs
# The emit step of `npm run build`; its type-check of the tests is CI's job (.ci/run).
RUN node scripts/build.mjs

# Run: production dependencies and dist/ only. (typeorm declares ts-node as an optional peer,
# so npm keeps ts-node and typescript in this install; nothing loads them: the compiled
# commands also run with both deleted.)
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
# node itself as PID 1 (not npm): SIGTERM reaches the process, which drains and exits. The V8
# flags are src/api-node-flags.json's (docs/operations.md, "The API's young generation").
CMD ["node", "--min-semi-space-size=16", "--max-semi-space-size=64", "--expose-gc", "dist/src/main.js"]
