/** £ with two decimals from integer pence, without floating point (documents and e-mails). */
export const formatPence = (pence: number) => `£${Math.floor(pence / 100)}.${String(pence % 100).padStart(2, '0')}`;
