/**
 * The back office's stylesheet, served at `<path>/assets/app.css`. Colours meet WCAG AA contrast
 * on white; focus is always visible; under 700 px the menu goes above the content.
 */
export const BACK_OFFICE_STYLES = `
:root { --ink: #1f2328; --muted: #57606a; --line: #d0d7de; --soft: #f6f8fa; --accent: #0b57d0; --accent-ink: #fff; --danger: #b42318; --ok: #116329; --focus: #0b57d0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; line-height: 1.45; }
* { box-sizing: border-box; }
body { margin: 0; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip-link { position: absolute; left: -999px; top: 0; background: #fff; padding: .5rem 1rem; z-index: 10; }
.skip-link:focus { left: .5rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.top { display: flex; align-items: center; justify-content: space-between; gap: 1rem; padding: .75rem 1.25rem; border-bottom: 1px solid var(--line); background: var(--soft); }
.title { font-weight: 700; font-size: 1.1rem; color: var(--ink); text-decoration: none; }
.layout { display: grid; grid-template-columns: 14rem minmax(0, 1fr); min-height: calc(100vh - 3.5rem); }
.menu { border-right: 1px solid var(--line); padding: 1rem .75rem; }
.menu ul { list-style: none; margin: 0; padding: 0; display: grid; gap: .25rem; }
.menu a { display: block; padding: .45rem .75rem; border-radius: 6px; text-decoration: none; color: var(--ink); }
.menu a:hover { background: var(--soft); }
.menu a[aria-current=page] { background: #dbe7fb; font-weight: 600; }
.content { padding: 1rem 1.5rem 3rem; min-width: 0; }
main:focus { outline: none; }
h1 { font-size: 1.5rem; margin: .25rem 0 1rem; }
h1:focus { outline: none; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
h3 { font-size: 1rem; margin: 0 0 .5rem; }
.page-header { display: flex; align-items: center; justify-content: space-between; gap: 1rem; flex-wrap: wrap; }
.breadcrumb { font-size: .9rem; margin-bottom: .25rem; }
.button { display: inline-flex; align-items: center; gap: .25rem; min-height: 2.25rem; padding: .4rem .9rem; border-radius: 6px; border: 1px solid var(--line); background: #fff; color: var(--ink); font: inherit; text-decoration: none; cursor: pointer; }
.button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-ink); }
.button.danger { background: #fff; border-color: var(--danger); color: var(--danger); }
.button[aria-disabled=true] { color: var(--muted); cursor: default; background: var(--soft); }
.muted { color: var(--muted); }
.status:not(:empty) { margin-bottom: .75rem; padding: .5rem .75rem; border-left: 4px solid var(--ok); background: #eaf5ec; color: var(--ok); }
.alert { margin: 0 0 1rem; padding: .75rem 1rem; border-left: 4px solid var(--danger); background: #fdecea; }
.alert p { margin: 0 0 .5rem; }
.alert-title { font-weight: 700; color: var(--danger); }
.filters { margin: 0 0 1rem; border: 1px solid var(--line); border-radius: 8px; padding: .5rem 1rem; }
.filters summary { cursor: pointer; font-weight: 600; padding: .25rem 0; }
.filter-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr)); gap: .5rem 1rem; margin: .5rem 0; align-items: end; }
.filter-grid .field { margin: 0; }
.range { display: grid; grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr)); min-width: 0; gap: .5rem; border: 0; padding: 0; margin: 0; }
.range .field, .range input { min-width: 0; }
@media (min-width: 701px) { .filter-grid .range { grid-column: span 2; } }
.range legend { font-weight: 600; font-size: .9rem; padding: 0; margin-bottom: .25rem; }
.range .field label { font-weight: 400; }
.field { display: grid; gap: .25rem; margin-bottom: .9rem; }
.field label, .group-label { font-weight: 600; font-size: .9rem; margin: 0; }
.required { color: var(--danger); }
input, select, textarea { font: inherit; color: var(--ink); padding: .45rem .6rem; border: 1px solid #8c959f; border-radius: 6px; background: #fff; width: 100%; min-height: 2.25rem; }
input[type=checkbox] { width: 1.25rem; height: 1.25rem; min-height: 0; }
input[type=file] { padding: .3rem; }
[aria-invalid=true] { border-color: var(--danger); box-shadow: 0 0 0 1px var(--danger); }
.field-error { color: var(--danger); font-size: .9rem; margin: 0; font-weight: 600; }
.hint { color: var(--muted); font-size: .85rem; margin: 0; }
.group { border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem 0; margin: 0 0 1rem; }
.group legend { font-weight: 700; padding: 0 .25rem; }
.document-form { max-width: 40rem; }
.form-actions, .actions { display: flex; flex-wrap: wrap; gap: .5rem; margin: .75rem 0; }
.read-only { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0 0 1rem; font-size: .9rem; color: var(--muted); }
.read-only dt { font-weight: 600; }
.read-only dd { margin: 0; overflow-wrap: anywhere; }
.table-wrap { overflow-x: auto; border: 1px solid var(--line); border-radius: 8px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .5rem .75rem; border-bottom: 1px solid var(--line); vertical-align: top; }
thead th { background: var(--soft); white-space: nowrap; }
tbody th { font-weight: 600; }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; }
.sort { font: inherit; font-weight: 700; background: none; border: 0; padding: 0; color: var(--ink); cursor: pointer; }
.pager { display: flex; align-items: center; gap: .5rem; flex-wrap: wrap; margin-top: .75rem; }
.pager p { margin: 0 auto 0 0; }
.picker { position: relative; }
.picker-options { position: absolute; z-index: 5; left: 0; right: 0; margin: .25rem 0 0; padding: .25rem 0; list-style: none; background: #fff; border: 1px solid var(--line); border-radius: 6px; box-shadow: 0 4px 12px rgba(0,0,0,.12); max-height: 16rem; overflow-y: auto; }
.picker-options li { padding: .4rem .75rem; cursor: pointer; }
.picker-options li[aria-selected=true], .picker-options li:hover { background: #dbe7fb; }
.reference { display: grid; gap: .25rem; }
.chips { list-style: none; display: flex; flex-wrap: wrap; gap: .4rem; margin: 0 0 .5rem; padding: 0; }
.chip { display: inline-flex; align-items: center; gap: .25rem; border: 1px solid var(--line); border-radius: 999px; padding: .1rem .2rem .1rem .7rem; background: var(--soft); }
.chip-remove { border: 0; background: none; font-size: 1.1rem; line-height: 1; padding: .2rem .45rem; border-radius: 999px; cursor: pointer; color: var(--ink); }
.files { max-width: 40rem; }
.file-field { border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem; }
.single-file, .gallery { list-style: none; margin: 0 0 .5rem; padding: 0; display: grid; gap: .75rem; }
.gallery { grid-template-columns: repeat(auto-fill, minmax(10rem, 1fr)); }
.preview img { max-width: 100%; max-height: 12rem; border: 1px solid var(--line); border-radius: 6px; background: var(--soft); }
.file-name { margin: .25rem 0; overflow-wrap: anywhere; }
.related ul, .cards { padding-left: 1.25rem; }
.dialog { border: 1px solid var(--line); border-radius: 10px; padding: 1.25rem 1.5rem; max-width: min(32rem, 92vw); }
.dialog::backdrop { background: rgba(0,0,0,.35); }
.dialog h2 { margin-top: 0; }
@media (max-width: 700px) {
  .layout { grid-template-columns: 1fr; grid-template-rows: auto 1fr; }
  .menu { border-right: 0; border-bottom: 1px solid var(--line); padding: .5rem; overflow-x: auto; }
  .menu ul { display: flex; gap: .25rem; }
  .menu a { white-space: nowrap; }
  .content { padding: .75rem .75rem 2rem; }
  .top { padding: .5rem .75rem; }
  .read-only { grid-template-columns: 1fr; }
}
`;
