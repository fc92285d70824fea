#include "cc_messages.h"
#include <string.h>
#include <stdio.h>

void cc_messages_set_error(cc_messages *m, const char *text) {
    /* The first error wins: later ones are usually consequences of it. */
    if (m->error[0] != '\0') return;
    snprintf(m->error, sizeof m->error, "%s", text ? text : "unknown error");
}

void cc_messages_add_warning(cc_messages *m, const char *text) {
    m->warning_count++;
    if (m->warning_count > CC_MAX_WARNINGS) return;
    size_t used = strlen(m->warnings);
    size_t room = sizeof m->warnings - used;
    if (room < 2) return;
    /* Each kept warning is one line; a message longer than its share is cut, never the buffer overrun. */
    snprintf(m->warnings + used, room, "%s%.90s", used ? "\n" : "", text ? text : "warning");
}

