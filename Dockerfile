# One image for the API and the worker (docker-compose.yml picks the command).
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY worker ./worker
COPY scripts ./scripts
# The embedded address lookup reads its gazetteer from here.
COPY data/address-lookup ./data/address-lookup
ENV NODE_ENV=production
USER node
CMD ["npm", "run", "api"]
