#ifndef LLW_SANDBOX_H
#define LLW_SANDBOX_H
#endif
