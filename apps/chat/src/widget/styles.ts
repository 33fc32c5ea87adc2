/** The widget's look: light, small, readable, the visitor's system font. Scoped by the shadow root. */
export const WIDGET_CSS = `
:host { all: initial; }
* { box-sizing: border-box; }
.root { position: fixed; right: 20px; bottom: 20px; z-index: 2147483000; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #1f2933; }
button, input, textarea { font: inherit; color: inherit; }
.launcher { display: flex; align-items: center; gap: 8px; margin-left: auto; padding: 12px 18px; border: 0; border-radius: 999px; background: #1d4ed8; color: #fff; font-weight: 600; cursor: pointer; box-shadow: 0 6px 20px rgba(15, 23, 42, .25); }
.launcher:hover { background: #1e40af; }
:focus-visible { outline: 3px solid #93c5fd; outline-offset: 2px; }
.panel { display: flex; flex-direction: column; width: min(370px, calc(100vw - 24px)); height: min(580px, calc(100vh - 100px)); margin-bottom: 12px; background: #fff; border: 1px solid #e4e7eb; border-radius: 14px; overflow: hidden; box-shadow: 0 16px 48px rgba(15, 23, 42, .22); }
.panel[hidden] { display: none; }
.head { display: flex; align-items: center; justify-content: space-between; padding: 14px 16px; background: #1d4ed8; color: #fff; }
.head h2 { margin: 0; font-size: 15px; font-weight: 600; }
.head p { margin: 2px 0 0; font-size: 12px; opacity: .85; }
.close { width: 32px; height: 32px; border: 0; border-radius: 8px; background: transparent; color: #fff; font-size: 20px; line-height: 1; cursor: pointer; }
.close:hover { background: rgba(255, 255, 255, .15); }
.log { flex: 1; overflow-y: auto; padding: 16px; display: flex; flex-direction: column; gap: 10px; background: #f8fafc; }
.msg { max-width: 85%; padding: 9px 12px; border-radius: 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
.msg.them { align-self: flex-start; background: #fff; border: 1px solid #e4e7eb; border-bottom-left-radius: 4px; }
.msg.me { align-self: flex-end; background: #1d4ed8; color: #fff; border-bottom-right-radius: 4px; }
.msg.system { align-self: center; max-width: 95%; background: #eef2ff; color: #3730a3; font-size: 13px; text-align: center; }
.who { display: block; font-size: 11px; font-weight: 600; color: #52606d; margin-bottom: 2px; }
.cite { display: block; margin-top: 6px; font-size: 12px; color: #52606d; }
.cite a { color: #1d4ed8; }
.note { padding: 6px 16px; font-size: 12px; color: #52606d; background: #fff; border-top: 1px solid #e4e7eb; }
.note.error { color: #b91c1c; }
.note:empty { display: none; }
.reach { padding: 12px 16px; border-top: 1px solid #e4e7eb; background: #fff; display: grid; gap: 8px; }
.reach[hidden] { display: none; }
.reach fieldset { border: 0; margin: 0; padding: 0; display: flex; gap: 16px; }
.reach legend { font-weight: 600; margin-bottom: 4px; padding: 0; }
.reach label { display: flex; gap: 6px; align-items: flex-start; font-size: 13px; }
.reach label.field { flex-direction: column; gap: 2px; }
.reach input[type=email], .reach input[type=tel], .reach input[type=datetime-local], .reach textarea { width: 100%; padding: 8px 10px; border: 1px solid #cbd2d9; border-radius: 8px; }
.reach .actions { display: flex; gap: 12px; align-items: center; }
.reach input[type=email], .reach input[type=tel] { width: 100%; padding: 8px 10px; border: 1px solid #cbd2d9; border-radius: 8px; }
.primary { padding: 8px 14px; border: 0; border-radius: 8px; background: #1d4ed8; color: #fff; font-weight: 600; cursor: pointer; }
.primary:disabled { background: #9aa5b1; cursor: default; }
.compose { display: flex; gap: 8px; padding: 12px 16px 8px; border-top: 1px solid #e4e7eb; background: #fff; }
.compose textarea { flex: 1; resize: none; height: 40px; max-height: 120px; padding: 9px 10px; border: 1px solid #cbd2d9; border-radius: 8px; }
.foot { display: flex; gap: 16px; justify-content: flex-start; padding: 0 16px 12px; background: #fff; }
.link { border: 0; background: none; padding: 2px 0; color: #1d4ed8; font-size: 13px; text-decoration: underline; cursor: pointer; }
.link[hidden] { display: none; }
`;
