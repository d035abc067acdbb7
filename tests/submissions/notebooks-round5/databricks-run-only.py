# Databricks notebook source
# MAGIC %run ./solution

# COMMAND ----------

import numpy as np
out = vgg_classifier
