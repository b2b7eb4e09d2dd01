/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A spinning spinlock_t for the userspace XArray harness, included first
 * into every object (gcc -include) by xarray-bench.sh --lock spin. The
 * harness's tools/include/linux/spinlock.h makes spinlock_t a pthread
 * mutex: two atomic instructions a lock hold where the kernel's queued
 * spinlock has one (cmpxchg to lock, a plain release store to unlock),
 * and a contended waiter that sleeps in futex() where the kernel's spins.
 * This one takes the kernel's fast path and spins on a read when the lock
 * is held (test-and-test-and-set, not queued: fair enough for a few
 * threads). Defining that header's guard keeps it out.
 */
#ifndef __LINUX_SPINLOCK_H_
#define __LINUX_SPINLOCK_H_
#define ZS_SPINLOCK 1	/* zswap_forms.c names the lock it was built with */

#include <stdbool.h>

typedef struct {
	int locked;
} spinlock_t;

#define DEFINE_SPINLOCK(x)	spinlock_t x = { 0 }
#define __SPIN_LOCK_UNLOCKED(x)	(spinlock_t){ 0 }
#define spin_lock_init(x)	((x)->locked = 0)

static inline void zs_spin_lock(spinlock_t *l)
{
	int unlocked = 0;

	while (!__atomic_compare_exchange_n(&l->locked, &unlocked, 1, false,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
		unlocked = 0;
	}
}

static inline void zs_spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

#define spin_lock(x)			zs_spin_lock(x)
#define spin_lock_nested(x, subclass)	zs_spin_lock(x)
#define spin_unlock(x)			zs_spin_unlock(x)
#define spin_lock_bh(x)			zs_spin_lock(x)
#define spin_unlock_bh(x)		zs_spin_unlock(x)
#define spin_lock_irq(x)		zs_spin_lock(x)
#define spin_unlock_irq(x)		zs_spin_unlock(x)
#define spin_lock_irqsave(x, f)		((void)(f), zs_spin_lock(x))
#define spin_unlock_irqrestore(x, f)	((void)(f), zs_spin_unlock(x))

#endif
