/**
 * The most one Order can take as JSON, within the contract's bounds (CONTRACT 3.4): a 5,000
 * character note, 50 tags of 40 and 50 metadata values of 500 characters, 100 lines whose
 * products have names of 200 and skus of 64, names and addresses of 200, every character four
 * bytes in UTF-8 (~245 KB). What a request reading orders declares to the expensive-request
 * gate, so that the largest answers cannot together take the heap.
 */
export const MAX_ORDER_JSON_BYTES = 256 * 1024;
