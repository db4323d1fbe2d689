"""MongoDB's failCommand fail point, as the drivers' specification tests use it:

    {configureFailPoint: "failCommand", mode: "alwaysOn" | "off" | {times: n} | {skip: n},
     data: {failCommands: [names], errorCode, errorLabels, closeConnection,
            writeConcernError, blockConnection, blockTimeMS, appName}}

A command whose name is listed (from a client whose handshake gave appName, if one is
set) triggers it: it is blocked for blockTimeMS, then its connection is closed, or it
fails with errorCode (not executed), or it runs and gets writeConcernError appended.
errorLabels replace the labels the server would add. odmReplyFields, this server's own
(MongoDB has no such field), is a document whose fields replace the reply's after the
command ran: a server that contradicts itself (an insert that counts refused documents in
`n`, as mongo-java-server does), for the tests of what odm makes of such a reply.

And MongoDB's maxTimeAlwaysTimeOut fail point (mode "alwaysOn" | "off" | {times: n}): a
command that carries a maxTimeMS fails with MaxTimeMSExpired (50) before it runs, as if
its time limit had passed. mongod applies it to every client; here data: {appName} scopes
it to one client, as failCommand's appName does, so that tests running in parallel that
set maxTimeMS neither take nor are hit by another test's trigger (mongod ignores the data).
"""

import threading

from odm_query import CommandError
from odm_values import is_number, type_name

_DATA_FIELDS = frozenset(['failCommands', 'errorCode', 'errorLabels', 'closeConnection',
                          'writeConcernError', 'blockConnection', 'blockTimeMS', 'appName',
                          'failInternalCommands', 'odmReplyFields'])


class Action(object):
    """What a triggered fail point does to one command."""

    def __init__(self, data):
        self.block_ms = data.get('blockTimeMS', 0) if data.get('blockConnection') else 0
        self.close = bool(data.get('closeConnection'))
        self.error_code = data.get('errorCode')
        self.labels = data.get('errorLabels')
        self.write_concern_error = data.get('writeConcernError')
        self.reply_fields = data.get('odmReplyFields')


class FailCommand(object):
    def __init__(self):
        self.lock = threading.Lock()
        self.data = None
        self.times = None   # remaining triggers, None for always
        self.skip = 0
        self.count = 0      # times triggered, reported by the next configureFailPoint
        self.max_time_times = 0  # maxTimeAlwaysTimeOut: remaining triggers, None for always
        self.max_time_app = None  # ... and the appName it is limited to, None for any client

    def configure(self, cmd):
        if cmd.get('configureFailPoint') == 'maxTimeAlwaysTimeOut':
            return self._configure_max_time(cmd.get('mode'), cmd.get('data') or {})
        if cmd.get('configureFailPoint') != 'failCommand':
            raise CommandError(2, 'odm test server knows only the failCommand and maxTimeAlwaysTimeOut fail points, not %r'
                               % (cmd.get('configureFailPoint'),))
        mode = cmd.get('mode')
        data = cmd.get('data') or {}
        if not isinstance(data, dict):
            raise CommandError(14, "'data' must be an object")
        unknown = set(data) - _DATA_FIELDS
        if unknown:
            raise CommandError(2, 'failCommand does not know %s' % ', '.join(sorted(unknown)))
        times, skip = None, 0
        if mode == 'off':
            data = None
        elif mode == 'alwaysOn':
            pass
        elif isinstance(mode, dict) and len(mode) == 1 and \
                next(iter(mode)) in ('times', 'skip') and is_number(next(iter(mode.values()))):
            if 'times' in mode:
                times = int(mode['times'])
            else:
                skip = int(mode['skip'])
        else:
            raise CommandError(9, "'mode' must be 'off', 'alwaysOn', {times: n} or {skip: n}")
        if data is not None:
            names = data.get('failCommands')
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise CommandError(14, "'failCommands' must be an array of command names, not "
                                   "%s" % type_name(names))
            if 'odmReplyFields' in data and not isinstance(data['odmReplyFields'], dict):
                raise CommandError(14, "'odmReplyFields' must be an object")
            if data.get('blockConnection') and not is_number(data.get('blockTimeMS')):
                raise CommandError(2, "'blockTimeMS' is required with blockConnection")
        with self.lock:
            previous = self.count
            self.data, self.times, self.skip, self.count = data, times, skip, 0
            if times == 0:
                self.data = None
        return {'count': previous, 'ok': 1.0}

    def _configure_max_time(self, mode, data):
        if not isinstance(data, dict) or set(data) - {'appName'} or \
                not isinstance(data.get('appName', ''), str):
            raise CommandError(2, "maxTimeAlwaysTimeOut's data takes only appName (a string)")
        if mode == 'off':
            times = 0
        elif mode == 'alwaysOn':
            times = None
        elif isinstance(mode, dict) and set(mode) == {'times'} and is_number(mode['times']):
            times = int(mode['times'])
        else:
            raise CommandError(9, "'mode' must be 'off', 'alwaysOn' or {times: n}")
        with self.lock:
            self.max_time_times = times
            self.max_time_app = data.get('appName')
        return {'count': 0, 'ok': 1.0}

    def max_time_expires(self, app_name):
        """Whether maxTimeAlwaysTimeOut fails this command (one that carries maxTimeMS)."""
        with self.lock:
            if self.max_time_app is not None and self.max_time_app != app_name:
                return False
            if self.max_time_times is None:
                return True
            if self.max_time_times > 0:
                self.max_time_times -= 1
                return True
            return False

    def trigger(self, name, app_name):
        """The Action for this command, or None (most commands: the fail point is off)."""
        if self.data is None:
            return None
        with self.lock:
            data = self.data
            if data is None or name not in data['failCommands']:
                return None
            if 'appName' in data and data['appName'] != app_name:
                return None
            if self.skip > 0:
                self.skip -= 1
                return None
            self.count += 1
            if self.times is not None:
                self.times -= 1
                if self.times <= 0:
                    self.data = None
            return Action(data)
