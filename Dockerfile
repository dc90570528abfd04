# nugar's web app (`nugar serve`) in a container. Build from the repository root:
#   docker build -t nugar .
#   docker run -p 127.0.0.1:8000:8000 -e NUGAR_DB=postgresql+psycopg://USER:PASSWORD@HOST/DB \
#       -e NUGAR_WORKERS=4 -e NUGAR_PUBLIC_URL=https://games.example.org nugar
# Settings (all optional):
#   NUGAR_DB          database URL; none: one worker on a SQLite file in the volume /data
#   NUGAR_WORKERS     worker processes (more than 1 needs PostgreSQL), default 1
#   NUGAR_PUBLIC_URL  the address players reach the server at (game links start with it)
#   NUGAR_PROXY       address of the reverse proxy whose X-Forwarded-* headers are trusted
# docs/server.md, "Deployment", says how to put a TLS proxy in front.
FROM python:3.11-slim

RUN useradd --create-home --uid 10001 nugar && mkdir /data && chown nugar /data

WORKDIR /src
COPY . /src
RUN pip install --no-cache-dir "/src[web,postgres]"

USER nugar
ENV NUGAR_WORKERS=1 XDG_DATA_HOME=/data PYTHONUNBUFFERED=1
VOLUME /data
EXPOSE 8000

# the shell form lets the optional settings add their options only when given
CMD exec nugar serve --host 0.0.0.0 --port 8000 --workers "$NUGAR_WORKERS" \
    ${NUGAR_DB:+--db "$NUGAR_DB"} \
    ${NUGAR_PUBLIC_URL:+--public-url "$NUGAR_PUBLIC_URL"} \
    ${NUGAR_PROXY:+--forwarded-allow-ips "$NUGAR_PROXY"}
