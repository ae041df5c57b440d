# The same steps as the README: `npm ci`, then build ./cmd/playground.

# 1. The Datastar browser bundle, pinned by package-lock.json; npm's
# postinstall script copies it to web/static/vendor/ for the Go build to embed.
FROM node:20-bookworm-slim AS assets
WORKDIR /src
COPY package.json package-lock.json ./
COPY scripts/vendor-datastar.mjs scripts/
RUN npm ci --no-audit --no-fund --omit=dev

# 2. The server binary (static files and templates are compiled in).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
COPY --from=assets /src/web/static/vendor/ web/static/vendor/
RUN CGO_ENABLED=0 go build -trimpath -o /out/playground ./cmd/playground

# 3. The binary alone: it carries the bundle.
FROM gcr.io/distroless/static-debian12:nonroot
WORKDIR /app
COPY --from=build /out/playground /app/playground
EXPOSE 8080
USER nonroot
ENTRYPOINT ["/app/playground"]
