// The chunk the baseline app splits off (never loaded: only its loading code is measured).
export const later = 'later';
