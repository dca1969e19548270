#ifndef LLW_MATCH_H
#define LLW_MATCH_H
#endif
