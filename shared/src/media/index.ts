/**
 * Pictures members upload (houses and community): `@binzip/shared/media`, apart from the index so the
 * services without pictures never load the image library.
 */
export * from './config';
export * from './encode';
export * from './store';
export * from './pictures';
export * from './operations';
export * from './sweep';
