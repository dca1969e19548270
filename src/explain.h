#ifndef LLW_EXPLAIN_H
#define LLW_EXPLAIN_H
#endif
