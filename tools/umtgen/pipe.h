/*
 * umtgen: the pipeline from the simulation to the writer (pipe.c). Each
 * call queues one writer call; a second thread makes them in order.
 */
#ifndef UMTGEN_PIPE_H
#define UMTGEN_PIPE_H

#include <stddef.h>
#include <stdint.h>

#include "umtrace/umtrace.h"

struct pipe;

/* Starts the writer thread for @p w. @return NULL when out of memory. */
struct pipe *pipe_open(umt_writer *w);

/* Queues writer calls; 0, or -1 when the writer thread stopped on an error. */
int pipe_exec(struct pipe *p, const umt_exec_desc *d);    /* a record without context */
int pipe_context(struct pipe *p, const umt_exec_desc *d); /* a record with d->context */
/* A record whose LC is filled in place: the room for @p lc_size bytes of LC
 * (NULL when the writer thread stopped), then the record's fields, d->lc_size
 * the same size (d->lc is not used: the LC is where the room is). */
uint8_t *pipe_exec_room(struct pipe *p, uint64_t lc_size);
void pipe_exec_fields(uint8_t *lc, const umt_exec_desc *d);
/* A decoded body and a string: numbered 0, 1, 2... in call order; an
 * instruction row's DecodedFP and DisasmFP hold those numbers. */
int pipe_decoded(struct pipe *p, const umt_decoded_ins *d, const umt_lc_slot *slots);
int pipe_disasm(struct pipe *p, const char *text);
int pipe_ins(struct pipe *p, const umt_ins_rec *row);
int pipe_syscall(struct pipe *p, int64_t id, const umt_syscall_desc *d);

/* Makes the last calls and stops the thread. @return 0, or -1 with @p err set. */
int pipe_close(struct pipe *p, char *err, size_t size);

#endif
