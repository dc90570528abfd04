// The Print button of the pages to print (the rule sheet, the board, the history page):
// the pages carry no inline script (the site's Content-Security-Policy), so this file
// gives every button marked data-print its action.
"use strict";

for (const button of document.querySelectorAll("button[data-print]")) {
  button.addEventListener("click", () => window.print());
}
