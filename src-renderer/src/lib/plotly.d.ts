// The slice of plotly.js's API Fairground uses (plotly.js-dist-min ships no types).
declare module 'plotly.js-dist-min' {
  export interface PlotlyHTMLElement extends HTMLElement {
    on(event: 'plotly_click', handler: (e: { points: { customdata?: unknown; x?: unknown; y?: unknown; curveNumber: number; pointIndex: number }[] }) => void): void;
  }
  export type Data = Record<string, unknown>;
  export type Layout = Record<string, unknown>;
  export interface Config {
    displaylogo?: boolean;
    responsive?: boolean;
    displayModeBar?: boolean | 'hover';
    modeBarButtonsToRemove?: string[];
    staticPlot?: boolean;
  }
  export interface ImageOptions {
    format: 'png' | 'svg' | 'jpeg' | 'webp';
    width: number;
    height: number;
    scale?: number;
  }
  const Plotly: {
    newPlot(el: HTMLElement, data: Data[], layout?: Layout, config?: Config): Promise<PlotlyHTMLElement>;
    react(el: HTMLElement, data: Data[], layout?: Layout, config?: Config): Promise<PlotlyHTMLElement>;
    purge(el: HTMLElement): void;
    toImage(el: HTMLElement, opts: ImageOptions): Promise<string>;
  };
  export default Plotly;
}
