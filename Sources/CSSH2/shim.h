#ifndef CSSH2_SHIM_H
#define CSSH2_SHIM_H

#include <libssh2.h>
#include <libssh2_sftp.h>
#include <stdlib.h>
#include <string.h>

/* Every libssh2 macro the Swift side needs, as a typed C function (Swift imports neither
   function-like macros nor some of the constants). */

static inline LIBSSH2_SESSION *cssh2_session_init(void *abstract) {
    return libssh2_session_init_ex(NULL, NULL, NULL, abstract);
}

static inline void **cssh2_session_abstract(LIBSSH2_SESSION *session) {
    return libssh2_session_abstract(session);
}

static inline int cssh2_session_disconnect(LIBSSH2_SESSION *session, const char *description) {
    return libssh2_session_disconnect_ex(session, SSH_DISCONNECT_BY_APPLICATION, description, "");
}

static inline int cssh2_userauth_password(LIBSSH2_SESSION *session, const char *user, const char *password) {
    return libssh2_userauth_password_ex(session, user, (unsigned int)strlen(user),
                                        password, (unsigned int)strlen(password), NULL);
}

static inline int cssh2_userauth_publickey_fromfile(LIBSSH2_SESSION *session, const char *user,
                                                    const char *publickey, const char *privatekey,
                                                    const char *passphrase) {
    return libssh2_userauth_publickey_fromfile_ex(session, user, (unsigned int)strlen(user),
                                                  publickey, privatekey, passphrase);
}

typedef void (*cssh2_kbdint_callback)(const char *name, int name_len, const char *instruction,
                                      int instruction_len, int num_prompts,
                                      const LIBSSH2_USERAUTH_KBDINT_PROMPT *prompts,
                                      LIBSSH2_USERAUTH_KBDINT_RESPONSE *responses, void **abstract);

static inline int cssh2_userauth_keyboard_interactive(LIBSSH2_SESSION *session, const char *user,
                                                      cssh2_kbdint_callback callback) {
    return libssh2_userauth_keyboard_interactive_ex(session, user, (unsigned int)strlen(user), callback);
}

/* Sets response `index` to a malloc'ed copy of `text` (libssh2 frees it). */
static inline int cssh2_kbdint_set_response(LIBSSH2_USERAUTH_KBDINT_RESPONSE *responses, int index,
                                            const char *text) {
    size_t n = strlen(text);
    char *copy = (char *)malloc(n + 1);
    if (copy == NULL) return -1;
    memcpy(copy, text, n + 1);
    responses[index].text = copy;
    responses[index].length = (unsigned int)n;
    return 0;
}

static inline LIBSSH2_SFTP_HANDLE *cssh2_sftp_open(LIBSSH2_SFTP *sftp, const char *path, unsigned int length) {
    return libssh2_sftp_open_ex(sftp, path, length, LIBSSH2_FXF_READ, 0, LIBSSH2_SFTP_OPENFILE);
}

static inline int cssh2_sftp_fstat(LIBSSH2_SFTP_HANDLE *handle, LIBSSH2_SFTP_ATTRIBUTES *attrs) {
    return libssh2_sftp_fstat_ex(handle, attrs, 0);
}

static inline int cssh2_sftp_realpath(LIBSSH2_SFTP *sftp, const char *path, unsigned int length,
                                      char *target, unsigned int target_length) {
    return libssh2_sftp_symlink_ex(sftp, path, length, target, target_length, LIBSSH2_SFTP_REALPATH);
}

static inline int cssh2_is_regular_file(const LIBSSH2_SFTP_ATTRIBUTES *attrs) {
    return (attrs->flags & LIBSSH2_SFTP_ATTR_PERMISSIONS) == 0 || LIBSSH2_SFTP_S_ISREG(attrs->permissions);
}

#endif
