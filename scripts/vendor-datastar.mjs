// Copies the pinned Datastar bundle from node_modules into web/static/vendor/,
// where `//go:embed` compiles it into the server binary, so the built binary
// serves it from any working directory and offline. npm runs this after
// `npm ci` (the postinstall script in package.json); the copy is gitignored
// because package-lock.json already pins the bundle.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const from = join(root, "node_modules/@starfederation/datastar/dist/datastar.js");
const to = join(root, "web/static/vendor/datastar.js");
mkdirSync(dirname(to), { recursive: true });
copyFileSync(from, to);
console.log(`vendor-datastar: copied ${from} to ${to}`);
