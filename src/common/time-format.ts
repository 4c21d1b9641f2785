const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** log4j's ISO8601 layout in local time: `2026-11-29 15:01:37,495`. */
export function formatLog4jTimestamp(d: Date): string {
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())},${pad(d.getMilliseconds(), 3)}`
  );
}

/** DailyRollingFileAppender's `'.'yyyy-MM-dd-HH` suffix for the hour that holds d. */
export function formatHourSuffix(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}-${pad(d.getHours())}`;
}

/** java.util.Date.toString(): `Mon May 10 10:00:00 UTC 2021`. */
export function formatJavaDate(d: Date): string {
  const zone = Intl.DateTimeFormat('en-US', { timeZoneName: 'short' })
    .formatToParts(d)
    .find((p) => p.type === 'timeZoneName')?.value;
  const tz = zone === undefined || zone === 'GMT' ? 'UTC' : zone;
  return (
    `${DAYS[d.getDay()]} ${MONTHS[d.getMonth()]} ${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${tz} ${d.getFullYear()}`
  );
}
