/** Day, weekday (0 = Monday) and hour of an epoch-ms time, in UTC or the machine's local time. */
export function readDayAndHour(time: number, utc: boolean): { day: string; weekday: number; hour: number } {
  const date = new Date(time);
  const year = utc ? date.getUTCFullYear() : date.getFullYear();
  const month = (utc ? date.getUTCMonth() : date.getMonth()) + 1;
  const dayOfMonth = utc ? date.getUTCDate() : date.getDate();
  const sundayFirst = utc ? date.getUTCDay() : date.getDay();
  return {
    day: `${year}-${String(month).padStart(2, '0')}-${String(dayOfMonth).padStart(2, '0')}`,
    weekday: (sundayFirst + 6) % 7,
    hour: utc ? date.getUTCHours() : date.getHours(),
  };
}
