// The basket optimizer: a pure function from candidate listings to the cheapest basket.
export { solveBasket } from './solve-basket';
export type { BasketProblem, BasketSolution } from './types';
