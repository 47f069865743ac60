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
ENV NODE_ENV=production
USER node
CMD ["npm", "run", "api"]
