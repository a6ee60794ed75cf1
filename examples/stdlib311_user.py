# Demo for apidrift: a small tool written for Python 3.11, where every call below binds.
# `npm run demo` checks it against the Python 3.12 stdlib and should report five findings:
#   line 10  unknown-import       SafeConfigParser was removed from configparser
#   line 19  unexpected-keyword   ftplib.FTP_TLS no longer accepts certfile=
#   line 22  too-many-positional  imaplib.IMAP4_SSL takes only host and port positionally
#   line 25  unexpected-keyword   http.client.HTTPSConnection no longer accepts check_hostname=
#   line 28  unknown-attribute    importlib.find_loader was removed
# The other calls (ConfigParser, formatdate, HTTPSConnection(timeout=), rmtree(onerror=)) still bind.
import configparser, email.utils, ftplib, http.client, imaplib, importlib, shutil
from configparser import SafeConfigParser


def read_config(path, legacy=False):
    parser = SafeConfigParser() if legacy else configparser.ConfigParser()
    parser.read(path)
    return parser, email.utils.formatdate(localtime=True)

def upload(host, cert_path):
    return ftplib.FTP_TLS(host, "deploy", certfile=cert_path)

def inbox(host, key_path, cert_path):
    return imaplib.IMAP4_SSL(host, 993, key_path, cert_path)

def ping(host, verify=True):
    return http.client.HTTPSConnection(host, timeout=5, check_hostname=verify)

def has_plugin(name):
    return importlib.find_loader(name) is not None

def clean(path):
    shutil.rmtree(path, onerror=lambda *exc: None)

def status_page(host):
    return http.client.HTTPSConnection(host, timeout=5)
