/** Reference for the import ratio: a bundle with nothing in it (what Node's module loading costs). */
export {};
