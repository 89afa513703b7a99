extension WebPage {
    /// The style sheet: system fonts, one column that reads at 400 px, visible keyboard focus.
    static let style = #"""
        :root { color-scheme: light dark; --accent: #1a66c9; --bad: #b3261e; --muted: #666; --line: #8884; }
        * { box-sizing: border-box; }
        body { font: 15px/1.4 system-ui, sans-serif; margin: 0 auto; padding: 0 12px 24px; max-width: 60rem; }
        header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0 1rem; border-bottom: 1px solid var(--line); }
        h1 { font-size: 1.3rem; margin: .6rem 0; }
        h2 { font-size: 1.05rem; margin: 1rem 0 .4rem; }
        #connection { margin: 0; color: var(--muted); }
        #connection.live::before { content: "● "; color: #2e7d32; }
        #connection.down::before { content: "● "; color: var(--bad); }
        form { display: grid; gap: .4rem; }
        textarea, input { font: inherit; width: 100%; padding: .3rem .4rem; }
        .fields { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: .4rem; }
        .fields label { display: grid; gap: .1rem; }
        button { font: inherit; padding: .25rem .8rem; cursor: pointer; }
        form button { justify-self: start; }
        :focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
        #add-result, #message { margin: .2rem 0; min-height: 1.2em; }
        #message, .error { color: var(--bad); }
        #totals { margin: .2rem 0; color: var(--muted); }
        ul { list-style: none; padding: 0; margin: 0; }
        li.download { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .6rem; margin: .5rem 0; }
        .head { display: flex; flex-wrap: wrap; justify-content: space-between; gap: .3rem; }
        .name { font-weight: 600; overflow-wrap: anywhere; }
        .state { font-size: .85rem; padding: 0 .5rem; border-radius: 1rem; border: 1px solid var(--line); }
        .state-completed .state { color: #2e7d32; }
        .state-failed .state, .state-cancelled .state { color: var(--bad); }
        .url { color: var(--muted); font-size: .85rem; overflow-wrap: anywhere; margin: .1rem 0; }
        progress { width: 100%; height: 1rem; accent-color: var(--accent); }
        .numbers { display: flex; flex-wrap: wrap; gap: 0 1rem; font-size: .9rem; font-variant-numeric: tabular-nums; }
        .error { margin: .2rem 0; overflow-wrap: anywhere; }
        .actions { display: flex; flex-wrap: wrap; gap: .4rem; margin-top: .3rem; }
        .inline { display: flex; flex-wrap: wrap; gap: .4rem; }
        .inline input { flex: 1 1 8rem; width: auto; }
        #limit-now { margin: 0; font-weight: 600; }
        [hidden] { display: none !important; }

        """#
}
