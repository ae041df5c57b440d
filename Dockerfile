# The same steps as the README: `npm ci`, then build ./cmd/playground.

# 1. The Datastar browser bundle, pinned by package-lock.json.
FROM node:20-bookworm-slim AS assets
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --omit=dev

# 2. The server binary (static files and templates are compiled in).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o /out/playground ./cmd/playground

# 3. The binary and the bundle at the path the server reads by default,
# relative to the working directory.
FROM gcr.io/distroless/static-debian12:nonroot
WORKDIR /app
COPY --from=build /out/playground /app/playground
COPY --from=assets /src/node_modules/@starfederation/datastar/dist/datastar.js /app/node_modules/@starfederation/datastar/dist/datastar.js
EXPOSE 8080
USER nonroot
ENTRYPOINT ["/app/playground"]
