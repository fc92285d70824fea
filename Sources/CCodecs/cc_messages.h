#ifndef CC_MESSAGES_H
#define CC_MESSAGES_H
/* Error and warning text collected from the libraries instead of being printed. */
#include <stddef.h>

#define CC_MAX_WARNINGS 16

typedef struct cc_messages {
    char error[200];
    char warnings[CC_MAX_WARNINGS * 96];
    int warning_count;   /* all warnings seen, including the ones not kept */
} cc_messages;

void cc_messages_set_error(cc_messages *m, const char *text);
/* Keeps the first CC_MAX_WARNINGS distinct-by-position warnings; later ones are only counted. */
void cc_messages_add_warning(cc_messages *m, const char *text);

#endif
