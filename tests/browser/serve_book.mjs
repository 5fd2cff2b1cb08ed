// Serves a copy of the book's html/ folder on 127.0.0.1 as a static host would, for the browser
// tests: the copy lives in a fresh temporary folder (so no page can lean on where the build left
// it), every file is sent whole with its length (a streamed, chunked reply costs a delayed-ACK wait
// per file) and cacheable (a tab going from page to page loads MathJax and the WebAssembly once).
// The browser's own /favicon.ico request gets 204; anything outside the copy or missing, 404.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";

const types = { ".html": "text/html; charset=utf-8", ".css": "text/css", ".js": "text/javascript",
                ".png": "image/png", ".svg": "image/svg+xml", ".woff": "font/woff", ".otf": "font/otf" };

// Copies `source` into a temporary folder named after `prefix` and serves it on a free port.
// Returns { root: the copy, base: "http://127.0.0.1:PORT/", close(): stop serving, remove the copy }.
export async function serveBook(source, prefix) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.cpSync(source, root, { recursive: true });
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    const file = path.join(root, decodeURIComponent(url.pathname));
    if (url.pathname === "/favicon.ico" || !file.startsWith(root) || !fs.existsSync(file) ||
        !fs.statSync(file).isFile()) {
      res.writeHead(url.pathname === "/favicon.ico" ? 204 : 404);
      res.end();
      return;
    }
    const body = fs.readFileSync(file);
    res.writeHead(200, { "Content-Type": types[path.extname(file)] ?? "application/octet-stream",
                         "Content-Length": body.length, "Cache-Control": "max-age=600" });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    root,
    base: `http://127.0.0.1:${server.address().port}/`,
    close: () => {
      server.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
