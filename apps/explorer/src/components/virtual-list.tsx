import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * A scrolling list that renders only the rows in view (plus a few either side): a thousand updates cost the DOM a few
 * dozen rows. Rows have one fixed height.
 */
export function VirtualList<T>(props: {
  items: readonly T[];
  rowHeight: number;
  label: string;
  keyOf: (item: T) => string | number;
  row: (item: T) => ComponentChildren;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setHeight(el.clientHeight || 600));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  const overscan = 8;
  const first = Math.max(0, Math.floor(scrollTop / props.rowHeight) - overscan);
  const last = Math.min(props.items.length, Math.ceil((scrollTop + height) / props.rowHeight) + overscan);
  return (
    <div class="virtual" ref={box} onScroll={(e) => setScrollTop((e.currentTarget as HTMLDivElement).scrollTop)}>
      <ul aria-label={props.label} style={{ height: `${props.items.length * props.rowHeight}px` }}>
        {props.items.slice(first, last).map((item, i) => (
          <li
            key={props.keyOf(item)}
            style={{ top: `${(first + i) * props.rowHeight}px`, height: `${props.rowHeight}px` }}
          >
            {props.row(item)}
          </li>
        ))}
      </ul>
    </div>
  );
}
