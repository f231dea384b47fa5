/** Downloads from the console: data the page holds (a JSON list) or a URL the server streams (a CSV export). */

/** Saves `text` as a file named `filename` (through a blob URL, revoked once the download started). */
export function downloadText(filename: string, text: string, type = 'application/json'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  try {
    downloadUrl(url, filename);
  } finally {
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }
}

/** Starts the browser's download of `url` (the server answers with `Content-Disposition: attachment`). */
export function downloadUrl(url: string, filename: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
}
