import { describe, expect, it } from 'vitest';
import { TemplateLearningBudget } from './template-learning-budget.js';

const takes = (budget: TemplateLearningBudget, count: number): boolean[] => Array.from({ length: count }, () => budget.take());

describe('TemplateLearningBudget (decision 0320)', () => {
  it('skips the first four candidates, then allows eight attempts without a hit', () => {
    const budget = new TemplateLearningBudget(true);
    expect(takes(budget, 4)).toEqual([false, false, false, false]);
    expect(takes(budget, 8)).toEqual(Array(8).fill(true));
    expect(budget.open).toBe(false);
    expect(budget.take()).toBe(false);
  });

  it('a hit earns one attempt back, never more than the maximum', () => {
    const budget = new TemplateLearningBudget(true);
    takes(budget, 12);
    budget.earn();
    expect(budget.open).toBe(true);
    expect(takes(budget, 2)).toEqual([true, false]);
    const fresh = new TemplateLearningBudget(true);
    takes(fresh, 4);
    fresh.earn();
    expect(takes(fresh, 9)).toEqual([...Array(8).fill(true), false]);
  });

  it('disabled: never open, never takes', () => {
    const budget = new TemplateLearningBudget(false);
    expect(budget.open).toBe(false);
    expect(takes(budget, 10)).toEqual(Array(10).fill(false));
  });
});
