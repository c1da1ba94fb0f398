/** Where the CLI writes (injectable for tests), and whether stderr is a terminal. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** True when stderr is a TTY (progress draws a bar instead of periodic lines). */
  errIsTty?: boolean;
}
