/** Collects records and hands them to the sink in batches (one staging transaction per batch). */
export class Batcher<T> {
  private batch: T[] = [];
  constructor(
    private readonly flushTo: (batch: T[]) => void | Promise<void>,
    private readonly size = 500,
  ) {}

  async add(record: T): Promise<void> {
    this.batch.push(record);
    if (this.batch.length >= this.size) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    const out = this.batch;
    this.batch = [];
    await this.flushTo(out);
  }
}
