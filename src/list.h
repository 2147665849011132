// Intrusive doubly linked lists: an entry sits in several lists at once (its name's queue, the
// engine's held or pending list, its client's list), each through its own Link member.
// Every write goes through put() (undo.h).
#pragma once

#include "undo.h"

namespace wl {

template <class T>
struct Link {
  T* prev;
  T* next;
};

template <class T, Link<T> T::*kLink>
struct List {
  T* head;
  T* tail;

  bool empty() const { return head == nullptr; }

  void push_back(T* item) {
    put((item->*kLink).prev, tail);
    put((item->*kLink).next, static_cast<T*>(nullptr));
    link_at_back(item);
  }

  // For an item taken in this very call (a fresh record): its own link needs no undo record.
  void push_back_fresh(T* item) {
    (item->*kLink).prev = tail;
    (item->*kLink).next = nullptr;
    link_at_back(item);
  }

  void push_front(T* item) {
    put((item->*kLink).prev, static_cast<T*>(nullptr));
    put((item->*kLink).next, head);
    if (head) put((head->*kLink).prev, item); else put(tail, item);
    put(head, item);
  }

  // Unlinks item; its own link is left as it was (it is re-linked or freed next).
  void remove(T* item) {
    Link<T>& link = item->*kLink;
    if (link.prev) put((link.prev->*kLink).next, link.next); else put(head, link.next);
    if (link.next) put((link.next->*kLink).prev, link.prev); else put(tail, link.prev);
  }

  static T* next(T* item) { return (item->*kLink).next; }

 private:
  void link_at_back(T* item) {
    if (tail) put((tail->*kLink).next, item); else put(head, item);
    put(tail, item);
  }
};

}  // namespace wl
