/// The agent's web page: one HTML document, its style sheet and its script, served by the TCP
/// listener under `/ui/` (``AgentWebServer``).
///
/// They are kept as string literals rather than SwiftPM resources: `fdl` is one executable that
/// is installed by copying it (`fdl install`, packages), and a resource bundle would have to
/// travel beside it (on Linux `Bundle.module` stops the process when the bundle is missing).
/// There is no build step and nothing from a CDN; the script is a file of its own so the
/// Content-Security-Policy `default-src 'self'` holds (no inline script or style). The page uses
/// only the documented API (`/v1/downloads`, `/v1/summary`, `/v1/limit`, `/v1/events`,
/// `/v1/deliveries/dead`), with the
/// token the page read from its URL's fragment, as `Authorization: Bearer TOKEN`.
enum WebPage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>fdl agent</title>
        <link rel="stylesheet" href="/ui/app.css">
        <script src="/ui/app.js" defer></script>
        </head>
        <body>
        <header>
          <h1>fdl agent</h1>
          <p id="connection" role="status" aria-live="polite">connecting…</p>
        </header>
        <main>
          <section aria-labelledby="add-title">
            <h2 id="add-title">Add downloads</h2>
            <form id="add" autocomplete="off">
              <label for="urls">URLs, one per line</label>
              <textarea id="urls" rows="2" required placeholder="https://example.com/file.iso"></textarea>
              <div class="fields">
                <label>Name <input id="name" placeholder="from the URL"></label>
                <label>SHA-256 <input id="sha256" pattern="[0-9a-fA-F]{64}" placeholder="optional, 64 hex digits"></label>
                <label>Save as <input id="destination" placeholder="optional, absolute path"></label>
              </div>
              <label for="mirrors">Mirrors, one URL per line (other places of the same file, tried in turn)</label>
              <textarea id="mirrors" rows="1" placeholder="optional: https://mirror.example.org/file.iso"></textarea>
              <button type="submit">Add</button>
              <p id="add-result" role="status" aria-live="polite"></p>
            </form>
          </section>
          <section aria-labelledby="limit-title">
            <h2 id="limit-title">Overall limit</h2>
            <form id="limit" autocomplete="off">
              <p id="limit-now" role="status" aria-live="polite">reading the limit…</p>
              <label for="limit-rate">Bytes per second for all downloads together: 500K, 1.5M, 2G (1024-based)</label>
              <div class="inline">
                <input id="limit-rate" inputmode="decimal" pattern="\s*([0-9]+(\.[0-9]*)?|\.[0-9]+)[kKmMgG]?\s*" placeholder="e.g. 1.5M">
                <button type="submit">Set limit</button>
                <button type="button" id="limit-clear">No limit</button>
              </div>
            </form>
          </section>
          <section aria-labelledby="list-title">
            <h2 id="list-title">Downloads</h2>
            <p id="totals" aria-live="off"></p>
            <p id="message" role="alert"></p>
            <ul id="downloads"></ul>
            <p id="empty">No downloads yet.</p>
            <button type="button" id="more" hidden>Show more</button>
          </section>
          <section aria-labelledby="dead-title" id="dead-section" hidden>
            <h2 id="dead-title">Undelivered notifications</h2>
            <p>Completions the agent could not deliver to a webhook or command within their lifetime.</p>
            <ul id="dead"></ul>
          </section>
        </main>
        </body>
        </html>

        """#
}
