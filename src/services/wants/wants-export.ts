import { writeWantsCsv } from './wants-csv';
import type { WantsLists } from './wants-lists';

/** A list as CSV, in the import's format: exporting and importing it again gives the same lines. */
export class WantsExport {
  constructor(private readonly lists: WantsLists) {}

  async csv(userId: string, listId: string): Promise<{ name: string; csv: string }> {
    const [list, lines] = await Promise.all([this.lists.get(userId, listId), this.lists.storedLines(userId, listId)]);
    return { name: list.name, csv: writeWantsCsv(lines) };
  }
}
