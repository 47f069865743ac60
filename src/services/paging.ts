/** A validated page request of the spec's list routes (page ≥ 1, size 1–50). */
export interface PageRequest {
  page: number;
  size: number;
  sort: 'createdAt' | 'updatedAt';
  direction: 'asc' | 'desc';
}
