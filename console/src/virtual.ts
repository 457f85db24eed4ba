/**
 * A virtualized list for Preact over TanStack's virtual-core: only the rows in view (and a few
 * either side) are in the page, so a history of 25,000 events scrolls as one of 25. Rows may grow
 * (an opened event): each is measured where it is shown.
 */
import {
  elementScroll,
  observeElementOffset,
  observeElementRect,
  Virtualizer,
  type VirtualizerOptions,
} from '@tanstack/virtual-core';
import { useLayoutEffect, useReducer, useState } from 'preact/hooks';

type Options = Pick<
  VirtualizerOptions<HTMLElement, HTMLElement>,
  'count' | 'estimateSize' | 'getScrollElement'
> &
  Partial<Pick<VirtualizerOptions<HTMLElement, HTMLElement>, 'overscan' | 'getItemKey'>>;

export function useVirtualizer(options: Options): Virtualizer<HTMLElement, HTMLElement> {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const resolved: VirtualizerOptions<HTMLElement, HTMLElement> = {
    overscan: 12,
    scrollToFn: elementScroll,
    observeElementRect,
    observeElementOffset,
    ...options,
    onChange: () => rerender(0),
  };
  const [virtualizer] = useState(() => new Virtualizer(resolved));
  virtualizer.setOptions(resolved);
  useLayoutEffect(() => virtualizer._didMount(), []);
  useLayoutEffect(() => virtualizer._willUpdate());
  return virtualizer;
}
