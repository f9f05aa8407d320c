/**
 * The nightly maintenance window of the partner cart: no transactions between two local times of
 * the event (default 02:00-04:00). The window is `HH:MM-HH:MM` (end excluded; it may wrap past
 * midnight) or `off`.
 */
export interface MaintenanceWindow {
  /** Minutes after local midnight. */
  start: number;
  end: number;
}

const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Parses `HH:MM-HH:MM` or `off` (undefined). Throws on anything else. */
export function parseMaintenanceWindow(value: string): MaintenanceWindow | undefined {
  const text = value.trim().toLowerCase();
  if (text === 'off' || text === '') return undefined;
  const [from, to, ...rest] = text.split('-');
  const a = TIME.exec(from ?? '');
  const b = TIME.exec(to ?? '');
  if (!a || !b || rest.length > 0) throw new Error('must be HH:MM-HH:MM or off');
  const start = Number(a[1]) * 60 + Number(a[2]);
  const end = Number(b[1]) * 60 + Number(b[2]);
  if (start === end) throw new Error('start and end must differ');
  return { start, end };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-GB', {
        timeZone,
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      });
    } catch {
      formatter = formatterFor('UTC');
    }
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Minutes after local midnight of `instant` in `timeZone` (UTC when empty or unknown). */
export function localMinutes(instant: Date, timeZone: string): number {
  const parts = formatterFor(timeZone || 'UTC').formatToParts(instant);
  const hour = Number(parts.find((p) => p.type === 'hour')?.value ?? 0);
  const minute = Number(parts.find((p) => p.type === 'minute')?.value ?? 0);
  return hour * 60 + minute;
}

/** True when `instant` falls inside the window in the event's time zone. */
export function inMaintenance(
  window: MaintenanceWindow | undefined,
  instant: Date,
  timeZone: string,
): boolean {
  if (!window) return false;
  const t = localMinutes(instant, timeZone);
  return window.start < window.end
    ? t >= window.start && t < window.end
    : t >= window.start || t < window.end;
}
