/** The back office's stylesheet, served as `<path>/assets/app.css` (a placeholder until the app's own). */
export const BACK_OFFICE_STYLES = `:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0; }
:focus-visible { outline: 2px solid Highlight; outline-offset: 2px; }
`;
