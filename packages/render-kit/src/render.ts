/**
 * Drawing the entry barcode of a token: PDF417 for rotating tokens with QR as the fallback (a
 * payload PDF417 cannot hold, or a device asked for QR), QR only for static `barcode` tokens.
 * bwip-js (Barcode Writer in Pure PostScript, ported to JavaScript) does the symbology; it renders
 * SVG in the browser and in Node alike.
 */
import { drawingSVG, pdf417, qrcode } from 'bwip-js';
import { decodeToken, payloadAt, STEP_SECONDS, timeStep, type EntryToken } from './format.js';

export type Symbology = 'pdf417' | 'qrcode';

/** The SVG of a payload in a symbology. */
export function barcodeSvg(payload: string, symbology: Symbology): string {
  // Symbology-specific options (PDF417 columns and error correction level) are passed through to
  // BWIPP; the typed options list only the common ones.
  // Only these two encoders are imported, so the browser bundle leaves the other symbologies out.
  type Options = Parameters<typeof pdf417>[0] & object;
  if (symbology === 'pdf417') {
    const options = { bcid: 'pdf417', text: payload, columns: 6, eclevel: 4, scale: 2, padding: 4 };
    return pdf417(options as unknown as Options, drawingSVG());
  }
  const options = { bcid: 'qrcode', text: payload, eclevel: 'M', scale: 4, padding: 4 };
  return qrcode(options as unknown as Options, drawingSVG());
}

export interface RenderedBarcode {
  payload: string;
  symbology: Symbology;
  svg: string;
  step: number;
}

/**
 * The barcode to show at an instant. `prefer` picks QR for a rotating token (the fallback a device
 * may ask for); PDF417 falls back to QR when it cannot encode the payload.
 */
export function renderAt(
  token: EntryToken,
  epochMs: number,
  prefer: Symbology = 'pdf417',
): RenderedBarcode {
  const payload = payloadAt(token, epochMs);
  const step = timeStep(epochMs);
  if (token.renderType === 'rotating_symbology' && prefer === 'pdf417') {
    try {
      return { payload, symbology: 'pdf417', svg: barcodeSvg(payload, 'pdf417'), step };
    } catch {
      // QR fallback below.
    }
  }
  return { payload, symbology: 'qrcode', svg: barcodeSvg(payload, 'qrcode'), step };
}

export interface MountOptions {
  /** Clock (milliseconds since the epoch); Date.now by default. */
  now?: () => number;
  prefer?: Symbology;
  /** Called after every redraw. */
  onRender?: (rendered: RenderedBarcode) => void;
}

/** A mounted ticket barcode; `stop()` ends the rotation. */
export interface TicketBarcode {
  readonly token: EntryToken;
  current(): RenderedBarcode;
  stop(): void;
}

/** The element parts the kit touches (an HTMLElement in the browser; anything alike in tests). */
export interface BarcodeHost {
  innerHTML: string;
  setAttribute(name: string, value: string): void;
}

/**
 * Draws the token's barcode into `host` and, for rotating tokens, redraws it at every 15-second
 * step boundary. The host carries `data-step`, `data-symbology` and `data-payload` (what a scanner
 * would read) for the page and for tests.
 */
export function mountTicket(
  host: BarcodeHost,
  tokenText: string,
  options: MountOptions = {},
): TicketBarcode {
  const token = decodeToken(tokenText);
  const now = options.now ?? (() => Date.now());
  let current = draw();
  let timer: ReturnType<typeof setTimeout> | undefined;

  function draw(): RenderedBarcode {
    const rendered = renderAt(token, now(), options.prefer);
    host.innerHTML = rendered.svg;
    host.setAttribute('data-step', String(rendered.step));
    host.setAttribute('data-symbology', rendered.symbology);
    host.setAttribute('data-payload', rendered.payload);
    options.onRender?.(rendered);
    return rendered;
  }
  function schedule() {
    const periodMs = STEP_SECONDS * 1000;
    const wait = periodMs - (now() % periodMs) + 5;
    timer = setTimeout(() => {
      current = draw();
      schedule();
    }, wait);
  }
  if (token.renderType === 'rotating_symbology') schedule();
  return {
    token,
    current: () => current,
    stop: () => clearTimeout(timer),
  };
}
